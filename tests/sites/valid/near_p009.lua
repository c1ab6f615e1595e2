-- Near P009: different services running and stopped.
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  service.running "nginx",
  service.stopped "apache2",
  revert(service.running "cups"),
  file.has_content("/etc/nginx/conf.d/x.conf", "# x\n"):on_change(service.restarted "nginx"),
}
