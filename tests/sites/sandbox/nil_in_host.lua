-- A nil in a host list (a hole) is an error, never silently skipped.
--! fatal 4
local missing = {}
host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  missing.nginx,
  apt.installed { "curl" },
}
