-- Two containers in one tree: each chroot.provisioned owns its tree
-- whole, so a second container at the same path is P007, not a harmless
-- duplicate.
local a = chroot.debootstrapped("/srv/chroot/a", os.debian("bookworm", "amd64"), {})
local b = chroot.debootstrapped("/srv/chroot/a", os.debian("bookworm", "amd64"),
                                { file.has_content("/etc/motd", "b\n") }, { name = "b" })
host "box" {
  os.debian("bookworm", "amd64"),
  chroot.provisioned(a),
  chroot.provisioned(b),
}

--! P007 10
