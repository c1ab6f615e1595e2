-- user.account's password = "*" (no password, the account locked) and
-- locked =: what contradicts them is refused before anything runs, and a
-- role locking an account that another role gives a password is P010.
--! P012 17
--! P012 18
--! P012 19
--! P012 20
--! P010 22
--! note 21
--! P010 24
--! note 23
--! P015 23
--! P015 25
host "accounts.example.com" {
  os.debian("bookworm", "amd64"),
  user.account("bob", { password = "*" }),
  user.account("dave", { password = "*", locked = true }),
  user.account("erin", { password = "*", only_if_unset = true }),
  user.account("frank", { password = "hunter2" }),
  user.account("gina", { locked = "yes" }),
  user.account("hal", { password = "!" }),
  revert(user.locked "hal"),
  user.account("ivy", { password = secret "ivy_pw" }),
  user.locked "ivy",
  user.account("jo", { password = secret "jo_pw", only_if_unset = true }),
  user.locked "jo",
  user.account("kim", { locked = false }),
  user.account("kim"),
}
