-- W106: a property uses a service and a port that nothing on its host
-- provides (the server is on another host); on the host that has them it
-- is clean.
--! W106 8 warning
--! W106 11 warning
host "app.example.com" {
  os.debian("bookworm", "amd64"),
  property {
    desc = "mariadb user app",
    uses = { services = { "mariadb" } }, apply = function(sys) end },
  property { desc = "proxy to the backend", uses = { ports = { 8080 } }, apply = function(sys) end },
}
host "db.example.com" {
  os.debian("bookworm", "amd64"),
  service.running "mariadb",
  property { desc = "backend", ports = { 8080 }, apply = function(sys) end },
  property { desc = "mariadb user app", uses = { services = { "mariadb" } }, apply = function(sys) end },
  property { desc = "proxy to the backend", uses = { ports = { 8080 } }, apply = function(sys) end },
}
