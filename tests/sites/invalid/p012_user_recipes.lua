-- P012: the arguments of the account attribute recipes.
--! P012 10
--! P012 11
--! P012 12
--! P012 13
--! P012 14
--! P012 15
host "accounts.example.com" {
  os.debian("bookworm", "amd64"),
  user.shell("alice", "bash"),
  user.shell("Alice", "/bin/bash"),
  user.locked("bob", { now = true }),
  user.has_group("carol", "Wheel"),
  user.system_account("svc", { shell = "nologin" }),
  user.system_account("svc2", { groups = { "adm" } }),
  user.has_group("carol", "adm"),
}
