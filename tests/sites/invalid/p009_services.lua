-- P009: a service both running and stopped.
--! P009 7
--! P009 9
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  service.running "nginx",
  service.stopped "nginx",
  service.stopped "cups",
  revert(service.stopped "cups"),
}
