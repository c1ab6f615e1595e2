-- Run-time facts, as an Ansible playbook uses gathered facts: content
-- computed from the target's own answers, and properties guarded by them.
-- The set of properties stays fixed (and checked) before anything runs.

local function motd(facts)
  local lines = {
    "This is " .. (facts.fqdn or facts.hostname or "an unnamed host") .. ", managed by prop.",
    (facts.os_name or "an unknown OS") .. ", kernel " .. (facts.kernel or "?"),
  }
  if facts.memory then
    lines[#lines + 1] = string.format("%d CPUs, %.1f GiB of memory", facts.cpus or 1,
                                      facts.memory / 2 ^ 30)
  end
  return lines
end

-- One nginx worker per CPU, and a listen address from the default route.
local function nginx_tuning(facts)
  return {
    "worker_processes " .. (facts.cpus or 1) .. ";",
    "# default address: " .. (facts.ipv4 or "none"),
  }
end

host "web.example.com" {
  os.debian("bookworm", "amd64"),
  file.has_content("/etc/motd", motd),
  apt.installed "nginx",
  file.has_content("/etc/nginx/conf.d/tuning.conf", nginx_tuning)
    :requires(apt.installed "nginx")
    :on_change(service.restarted "nginx"),
  -- A guest agent is for virtual machines, not for containers.
  apt.installed("qemu-guest-agent"):only_if(function(sys)
    return sys.facts.container == nil
  end),
  property {
    desc = "journald keeps less on small machines",
    claims = { files = { "/etc/systemd/journald.conf.d/size.conf" } },
    check = function(sys)
      local f = sys.facts
      return f.init ~= "systemd" or sys:exists("/etc/systemd/journald.conf.d/size.conf")
    end,
    apply = function(sys)
      local small = (sys.facts.memory or 0) < 2 * 2 ^ 30
      sys:mkdir("/etc/systemd/journald.conf.d")
      sys:write("/etc/systemd/journald.conf.d/size.conf",
                "[Journal]\nSystemMaxUse=" .. (small and "64M" or "512M") .. "\n")
    end,
  },
}
