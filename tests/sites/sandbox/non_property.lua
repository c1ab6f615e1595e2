-- A value that is not a property in a host list is an error.
--! fatal 3
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  "apt.installed nginx",
}
