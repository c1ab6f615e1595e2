-- Near P010: distinct ids; users and groups have separate id spaces.
-- Account attributes given once, or twice with the same value, or for
-- different accounts or groups.
host "users.example.com" {
  os.debian("bookworm", "amd64"),
  group.exists("staff", { gid = 1000 }),
  user.account("alice", { uid = 1000, gid = 1000 }),
  user.account("bob", { uid = 1001, gid = 1000 }),
  user.account("carol"),
  user.absent "dave",
  group.exists("wheel", { gid = 10 }),
  user.account("erin", { shell = "/bin/bash", groups = { "staff" } }),
  user.shell("erin", "/bin/bash"),
  user.has_group("erin", "staff"),
  revert(user.has_group("erin", "wheel")),
  user.shell("bob", "/bin/zsh"),
  user.locked "carol",
  revert(user.locked "bob"),
  user.system_account("svc", { home = "/var/lib/svc" }),
  user.shell("svc", "/usr/sbin/nologin"),
}
