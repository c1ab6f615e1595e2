-- P012 for what a hand-written property declares: claims and info.
local function nop(sys) end

host "bad.example.com" {
  os.debian("bookworm", "amd64"),
  property { desc = "typo", claims = { fils = { "/etc/x" } }, apply = nop },
  property { desc = "relative", claims = { files = { "etc/x" } }, apply = nop },
  property { desc = "not a string", claims = { packages = { 42 } }, apply = nop },
  property { desc = "lines keyed badly", claims = { lines = { "PermitRootLogin no" } }, apply = nop },
  property { desc = "newline in a line", claims = { lines = { ["/etc/x"] = "a\nb" } }, apply = nop },
  property { desc = "dot service", claims = { services = { ".." } }, apply = nop },
  property { desc = "claims not a table", claims = "/etc/x", apply = nop },
  property { desc = "reserved info", info = { connect = "local" }, apply = nop },
  property { desc = "reserved info 2", info = { ["connect.address"] = "evil" }, apply = nop },
  property { desc = "reserved info 3", info = { ipv4 = "192.0.2.1" }, apply = nop },
  property { desc = "bad info key", info = { ["a b"] = "x" }, apply = nop },
  property { desc = "bad info value", info = { ["app.x"] = { {} } }, apply = nop },
}

-- Near misses: custom info keys, with dots, numbers and lists.
host "good.example.com" {
  os.debian("bookworm", "amd64"),
  property { desc = "custom info", info = { ["ssh.port"] = 22, ["backup.dirs"] = { "/srv", "/etc" },
                                            monitored = true }, apply = nop },
}

--! P012 6
--! P012 7
--! P012 8
--! P012 9
--! P012 10
--! P012 11
--! P012 12
--! P012 13
--! P012 14
--! P012 15
--! P012 16
--! P012 17
