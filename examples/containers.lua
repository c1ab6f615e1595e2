-- Containers: hosts inside a host, each with its own OS and properties,
-- checked against that OS before anything runs, made by a property of
-- their parent and then kept up to date in place.
--
--   prop lint examples/containers.lua
--   prop show examples/containers.lua build.example.com
--   prop run  examples/containers.lua build.example.com        (as root, there)
--   prop run  examples/containers.lua build.example.com/sid    (one container)
--   prop run  examples/containers.lua app.example.com          (Docker containers)
--   prop run  examples/containers.lua apps.example.com         (a systemd host)

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

-- Docker containers, from an image made of the same cached tree (no
-- registry).  Each is a machine of its own: nginx really runs inside and
-- is reached on the port it publishes on the host.  Changing a parameter
-- (a new docker.env) makes the container again with its files kept.
local base = docker.image("app-base", os.debian("bookworm", "amd64"))

local function site(name, port, content)
  return docker.container(name, base, {
    apt.installed { "nginx" },
    file.has_content("/var/www/html/index.html", content),
    service.running "nginx",
    docker.publish(port, 80),
    docker.volume("/srv/" .. name .. "/logs", "/var/log/nginx"),
    docker.env("SITE_NAME", name),
  })
end

host "app.example.com" {
  os.debian("bookworm", "amd64"),
  ipv4 "192.0.2.20",
  apt.installed { "docker.io" },
  docker.running(site("shop", 8081, "the shop\n")),
  docker.running(site("blog", 8082, "the blog\n")),
  -- A container that is no longer wanted: revert removes it (the image stays).
  revert(docker.running(site("old", 8083, "retired\n"))),
}

-- A web server in a systemd-nspawn machine: it boots its own systemd, its
-- port 80 is the host's 8080, and the host's /srv/www is its document
-- root, read-only.  Its nginx is started inside it by service.running.
local web = systemd.container("web", os.debian("bookworm", "amd64"), {
  apt.installed { "nginx" },
  service.running "nginx",
  systemd.publish(8080, 80),
  systemd.bind("/srv/www", "/var/www/html", { readonly = true }),
})

host "apps.example.com" {
  os.debian("bookworm", "amd64"),
  apt.installed { "systemd-container" },
  systemd.nspawned(web),
}
