-- W102: a hook hung on an info property never runs.
--! W102 5 warning
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4("192.0.2.10"):on_change(service.restarted "nginx"),
}
