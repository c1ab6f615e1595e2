-- P012: uses naming an unknown kind, or a service or port that is not one;
-- the last, a good one, is clean.
--! P012 10
--! P012 11
--! P012 12
--! P012 13
--! P012 14
host "app.example.com" {
  os.debian("bookworm", "amd64"),
  property { desc = "a", uses = { service = { "mariadb" } }, apply = function(sys) end },
  property { desc = "b", uses = { sockets = { "/run/x" } }, apply = function(sys) end },
  property { desc = "c", uses = { ports = { 70000 } }, apply = function(sys) end },
  property { desc = "d", uses = { services = { 42 } }, apply = function(sys) end },
  property { desc = "e", uses = "mariadb", apply = function(sys) end },
  service.running "mariadb",
  property { desc = "f", uses = { services = { "mariadb" }, ports = {} }, apply = function(sys) end },
}
