-- P012: a container's path must be absolute, and not / (revert removes
-- the whole tree); its name is checked too.  Each is reported at the
-- line of the call that made the container, once: chroot.provisioned
-- of a container that could not be made adds nothing.
--! total 5
--! P012 12
--! P012 13
--! P012 14
--! P012 15
--! P012 16
host "box" {
  chroot.provisioned(chroot.debootstrapped("srv/chroot/dev", os.debian("bookworm", "amd64"), {})),
  chroot.provisioned(chroot.debootstrapped("/", os.debian("bookworm", "amd64"), {})),
  chroot.provisioned(chroot.debootstrapped("///", os.debian("bookworm", "amd64"), {})),
  chroot.provisioned(chroot.from_tarball("./ci", os.debian("bookworm", "amd64"), "/srv/ci.tar.gz", {})),
  chroot.provisioned(chroot.debootstrapped("/srv/chroot/x", os.debian("bookworm", "amd64"), {}, { name = "a/b" })),
  os.debian("bookworm", "amd64"),
}
