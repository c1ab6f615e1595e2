-- P012: ssh.authorized_keys takes public key lines, never a secret.
--! P012 7
--! P012 8
--! total 2
host "keys.example.com" {
  os.debian("bookworm", "amd64"),
  ssh.authorized_keys("alice", secret "alice_key"),
  ssh.authorized_keys("bob", { secret "bob_key" }),
}
