-- Jails are FreeBSD's: jail.running on a Debian host is P002, and so is a
-- Debian property inside a FreeBSD jail (checked against the jail's OS).
local www = jail.container("www", os.freebsd("14.1-RELEASE", "amd64"), {
  pkg.installed { "nginx" },
})
local mixed = jail.container("mixed", os.freebsd("14.1-RELEASE", "amd64"), {
  apt.installed { "nginx" },
})
host "deb" { os.debian("bookworm", "amd64"), jail.running(www) }
host "nas" { os.freebsd("14.1-RELEASE", "amd64"), jail.running(mixed) }

--! P002 7
--! P002 9
