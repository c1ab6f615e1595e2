-- Build chroots on one host: the first debootstrapped, the next unpacked
-- from the tarball the first left in the cache, a third reverted.
-- tests/cli/test_show_containers.sh and tests/repl/test_repl.sh check
-- where prop show, prop graph and the REPL put these containers, by line:
-- keep the lines where they are.
--
--   prop show tests/sites/valid/build_chroots.lua build.example.com
--   prop run  tests/sites/valid/build_chroots.lua build.example.com/sid

-- A build chroot for each suite: the first is debootstrapped, the next
-- ones are unpacked from the tarball the first one left in the cache.
local function build_root(suite)
  return chroot.debootstrapped("/srv/chroot/" .. suite, os.debian(suite, "amd64"), {
    apt.installed { "build-essential", "devscripts", "fakeroot" },
    user.account "builder",
    file.has_content("/etc/motd", "build chroot for " .. suite .. "\n"),
    -- No daemon runs in a chroot: this is ok, with a note saying so.
    service.running "cron",
  }, { include = { "ca-certificates" } })
end

host "build.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.10",
  apt.installed { "debootstrap" },
  chroot.provisioned(build_root "bookworm"),
  chroot.provisioned(build_root "sid"),
  -- A tree that is no longer wanted: revert removes it.
  revert(chroot.provisioned(build_root "bullseye")),
}
