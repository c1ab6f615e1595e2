-- P012: public keys checked before anything runs: a key type, and a base64
-- blob that is a key of that type.
--! P012 9
--! P012 10
--! P012 11
--! P012 12
host "keys.example.com" {
  os.debian("bookworm", "amd64"),
  ssh.authorized_keys("alice", "ssh-ed25519 AAAAB3NzaC1yc2EAAAADAQABAAABAQ alice@laptop"),
  ssh.authorized_keys("bob", { "ssh-ed2551 AAAAC3NzaC1lZDI1NTE5AAAAIG bob" }),
  ssh.authorized_keys("carol", "AAAAC3NzaC1lZDI1NTE5AAAAIIFjBNLXiKat1uOEPxMGF carol"),
  ssh.authorized_keys("Dave", {}),
  ssh.authorized_keys("erin", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIFjBNLXiKat1uOEPxMGF/tSx6TFZ9HMoqQnHbRguY+a erin"),
}
