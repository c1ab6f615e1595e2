-- Roles for the application servers, required by with_module.lua.

local roles = {}

function roles.base(opts)
  return props {
    apt.std_sources_list "http://deb.debian.org/debian",
    apt.installed { "openssh-server", "ca-certificates" },
    user.account("admin", { uid = opts.admin_uid, groups = { "sudo" } }),
    file.lacks_lines("/etc/ssh/sshd_config", "PermitRootLogin yes"),
  }
end

function roles.app_server(name)
  return props {
    file.directory("/srv/" .. name, { owner = "admin" }),
    file.has_content("/etc/default/" .. name, "PORT=9000\n"),
    service.running(name),
  }
end

return roles
