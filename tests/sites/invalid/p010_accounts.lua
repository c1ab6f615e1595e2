-- P010: accounts and groups with clashing ids or states.
--! P010 9
--! P010 11
--! P010 13
--! P010 15
host "users.example.com" {
  os.debian("bookworm", "amd64"),
  user.account("alice", { uid = 1000 }),
  user.account("bob", { uid = 1000 }),
  user.account("carol", { uid = 1003 }),
  user.account("carol", { uid = 1004 }),
  group.exists("staff", { gid = 50 }),
  group.exists("wheel", { gid = 50 }),
  user.account("dave"),
  user.absent "dave",
}
