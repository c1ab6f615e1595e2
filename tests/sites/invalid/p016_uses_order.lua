-- P016: a database user made before the server it needs is running, and
-- nothing orders them; the same with requires (db2) or before (db3), or
-- with the server listed first (db4), is clean.
--! P016 13
--! note 16
local app_user = property {
  desc = "mariadb user app",
  uses = { services = { "mariadb" } },
  apply = function(sys) end,
}
host "db1.example.com" {
  os.debian("bookworm", "amd64"),
  property {
    desc = "mariadb user app", uses = { services = { "mariadb" } }, apply = function(sys) end,
  },
  service.running "mariadb",
}
host "db2.example.com" {
  os.debian("bookworm", "amd64"),
  app_user:requires(service.running "mariadb"),
}
host "db3.example.com" {
  os.debian("bookworm", "amd64"),
  app_user,
  service.running("mariadb"):before(app_user),
}
host "db4.example.com" {
  os.debian("bookworm", "amd64"),
  service.running "mariadb",
  app_user,
}
