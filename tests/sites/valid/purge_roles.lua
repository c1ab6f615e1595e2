-- Directories that hold exactly what the roles of a host declare: a base
-- profile purges sudoers.d, cron.d, sources.list.d and nginx's
-- sites-enabled, and each role adds its own rule, job, site, file and
-- key; two roles list keys for one user, one of them exact.  Purges of
-- directories the site fills itself, beside a container whose tree is
-- elsewhere (/var/lib/machines-archive is not /var/lib/machines), lint
-- clean; a purged directory also given a mode by another
-- role agrees with it.
local base = {
  apt.installed { "sudo" },
  sudo.rules_purged(),
  cron.purged(),
  apt.sources_purged():on_change(apt.update()),
  nginx.installed { purge_sites = true },
  file.directory("/srv/www/conf.d", { purge = true }),
}

local function admins(h)
  return {
    user.account "alice",
    sudo.enabled_for("alice"),
    ssh.authorized_keys("alice", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHandAddedKeyHandAddedKeyHandAddedKeyAAA alice@laptop",
                        { exact = true }),
  }
end

local function shop(h)
  return {
    nginx.site("shop", "server { listen 8080; root /srv/www/shop; }\n"),
    cron.job("shop-report", "30 4 * * *", { "/usr/local/bin/shop-report" }),
    file.has_content("/srv/www/conf.d/shop.conf", "shop\n"),
    file.directory("/srv/www/conf.d", { mode = "0755" }),
    ssh.authorized_keys("alice", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHandAddedKeyHandAddedKeyHandAddedKeyBBB ci@build"),
  }
end

local web = systemd.container("web", os.debian("bookworm", "amd64"), {
  sudo.rules_purged(),
})

host "web1.example.com" {
  os.debian("bookworm", "amd64"),
  base, admins, shop,
  systemd.nspawned(web),
  file.directory("/var/lib/machines-archive", { purge = true }),
}
