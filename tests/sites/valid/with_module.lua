-- Roles shared by several sites live in a module next to the site.

local roles = require "lib.roles"

host "app1.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.51",
  roles.base { admin_uid = 1500 },
  roles.app_server("app1"),
}

host "app2.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.52",
  roles.base { admin_uid = 1500 },
  roles.app_server("app2"),
}
