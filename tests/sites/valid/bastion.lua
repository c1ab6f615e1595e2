-- An SSH bastion: a few admins with fixed uids, a group for them, sudo
-- for each, and a locked-down sshd.

local admins = {
  { name = "alice", uid = 1001 },
  { name = "bob", uid = 1002 },
  { name = "carol", uid = 1003 },
}

local accounts, sudoers = {}, {}
for _, a in ipairs(admins) do
  sudoers[#sudoers + 1] = sudo.enabled_for(a.name)
  accounts[#accounts + 1] = user.account(a.name, {
    uid = a.uid, gid = 2000, shell = "/bin/bash", home = "/home/" .. a.name,
    groups = { "admins" },
  })
  accounts[#accounts + 1] = file.directory("/home/" .. a.name .. "/.ssh",
                                           { mode = "0700", owner = a.name })
end

local sshd = file.contains_lines("/etc/ssh/sshd_config", {
  "PermitRootLogin no",
  "PasswordAuthentication no",
  "AllowGroups admins",
}):on_change(service.restarted "ssh")

host "bastion.example.com" {
  os.debian("bookworm", "amd64"),
  connect.ssh { address = "198.51.100.7", port = 2222, user = "alice", sudo = true,
                identity = "~/.ssh/id_ed25519", known_hosts = "~/.ssh/known_hosts" },
  ipv4 "198.51.100.7",
  group.exists("admins", { gid = 2000 }),
  accounts,
  user.absent "games",
  apt.installed { "openssh-server", "fail2ban", "sudo" },
  sudoers,
  sshd,
  service.running "fail2ban",
  file.mode("/etc/ssh/sshd_config", "600"),
  file.owner("/etc/ssh/sshd_config", "root", "root"),
}
