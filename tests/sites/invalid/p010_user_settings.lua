-- P010: one attribute of one account given two values on one host, by
-- user.account's options and the recipes for one attribute.
--! P010 13
--! P010 14
--! P010 16
--! P010 18
--! P010 19
--! P010 21
host "accounts.example.com" {
  os.debian("bookworm", "amd64"),
  user.account("alice", { shell = "/bin/sh", groups = { "adm" } }),
  user.locked "bob",
  user.shell("alice", "/bin/bash"),
  revert(user.has_group("alice", "adm")),
  user.has_group("alice", "staff"),
  revert(user.locked "bob"),
  user.system_account("carol", { home = "/var/lib/carol" }),
  user.account("carol", { home = "/home/carol" }),
  user.shell("carol", "/bin/sh"),
  user.shell("dave", "/bin/sh"),
  user.absent "dave",
}
