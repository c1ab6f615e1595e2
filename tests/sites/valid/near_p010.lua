-- Near P010: distinct ids; users and groups have separate id spaces.
host "users.example.com" {
  os.debian("bookworm", "amd64"),
  group.exists("staff", { gid = 1000 }),
  user.account("alice", { uid = 1000, gid = 1000 }),
  user.account("bob", { uid = 1001, gid = 1000 }),
  user.account("carol"),
  user.absent "dave",
  group.exists("wheel", { gid = 10 }),
}
