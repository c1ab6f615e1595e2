-- A purge empties a directory of everything the site does not declare:
-- one of the system's own directories (or a directory above one) holds
-- what packages put there, and a container's tree is the container's.
local web = systemd.container("web", os.debian("bookworm", "amd64"), {
  file.has_content("/etc/motd", "web\n"),
})
host "box" {
  os.debian("bookworm", "amd64"),
  file.directory("/etc", { purge = true }),
  file.directory("/", { purge = true }),
  file.directory("/var/lib/", { purge = true }),
  file.directory("/usr/local", { purge = true }),
  systemd.nspawned(web),
  file.directory("/var/lib/machines", { purge = true }),
  -- Allowed: directories the site fills itself, below system ones.
  file.directory("/etc/sudoers.d", { purge = true, mode = "0750" }),
  file.directory("/var/lib/machines/other", { purge = true }),
  -- What a purge removed is gone: not revertable.
  revert(file.directory("/srv/www/sites", { purge = true })),
  revert(sudo.rules_purged()),
}

--! P012 9
--! P012 10
--! P012 11
--! P012 12
--! P012 14
--! P001 19
--! P001 20
