-- prop.packaging: what the package recipes (apt, dnf, pacman, pkg) share
-- when they make properties.  Not a recipe module: recipes/apt.lua and the
-- others call it while a site is evaluated; what runs on the target stays
-- in each recipe (and in prop.runtime).
--
-- M = packaging.manager { ... } describes one package manager:
--   tool      "dnf": the prefix of its recipes ("dnf.installed") and of
--             their descriptions ("dnf installed nginx");
--   targets   the OS family or group it runs on ("RedHatLike");
--   impl      the recipe's impl tables, impl[which] for each recipe;
--   check     check(v, what) -> err, name: one package name;
--   shown     optional: which -> the words of the description
--             ("installed (without recommends)"); default: which;
--   options   optional: an args.options schema of the options its
--             package recipes take ({ installroot = ... }); they may be
--             given in the list ({ "nginx", installroot = "/srv/img" })
--             or as a last argument ("nginx", { installroot = ... });
--   where     optional: where(opts) -> a suffix for descriptions and
--             claim keys when the options move the packages elsewhere
--             (" in /srv/img"), or nil;
--   runtime   optional: the manager at run time, as R.ensure_packages
--             (prop.runtime) takes it: needs or missing, argv, and run and after if
--             it must; then impl.installed.ensure and impl.removed.ensure
--             are that one loop (what a recipe defines itself stays).
-- Then M.pair(which, other) makes the recipe function of a revertable
-- package recipe (installed/removed), and M.no_args(which, norevert) one
-- of a recipe without package names (upgraded, update), which takes the
-- options alone (dnf.upgraded { installroot = "/srv/img" }).

local core = require "prop.core"
local claim = core.claim
local args = require "prop.args"

local packaging = {}

local fmt = string.format

-- Recipes without arguments accept an empty options table, nothing else.
-- Returns the message for a call with arguments, or nil.
function packaging.no_args(recipe, a, n)
   if n > 1 or (a ~= nil and not (type(a) == "table" and next(a) == nil)) then
      local err = type(a) == "table" and args.options(a, {}, recipe) or nil
      return err or fmt("%s takes no arguments", recipe)
   end
   return nil
end

-- Splits the arguments of a package recipe into the names (a list, one
-- name, or several names as separate arguments) and the options table.
local function split(schema, ...)
   local n = select("#", ...)
   local v, opts = ...
   if n > 1 then
      local last = select(n, ...)
      if schema and args.is_options(last) then
         opts = last
         n = n - 1
      else
         opts = nil
      end
      if n > 1 then v = { ... }; v[n + 1] = nil end
   end
   if schema and type(v) == "table" then
      -- Options inside the list: { "nginx", installroot = "/srv/img" }.
      local list, inner = {}, nil
      for k, x in pairs(v) do
         if type(k) == "string" then
            inner = inner or {}
            inner[k] = x
         else
            list[k] = x
         end
      end
      if inner then
         if opts ~= nil then return list, nil, "options are given twice (in the list and after it)" end
         v, opts = list, inner
      end
   end
   return v, opts
end

function packaging.manager(spec)
   local M = {}
   local tool, targets = spec.tool, spec.targets
   local shown = spec.shown or {}
   local schema = spec.options

   local function words(which) return shown[which] or which end

   if spec.runtime then
      local R = require "prop.runtime"
      for which, want in pairs { installed = true, removed = false } do
         local i = spec.impl[which]
         if i and i.ensure == nil then
            local recipe = tool .. "." .. which
            i.ensure = function(sys, a)
               local changed = R.ensure_packages(spec.runtime, sys, recipe, a.packages, a.opts, want)
               return changed and "changed" or "ok"
            end
         end
      end
   end

   local function packages_leaf(which, list, opts, where)
      local desc = tool .. " " .. words(which) .. " " .. table.concat(list, " ") .. (where or "")
      local kind = which == "removed" and claim.package_removed or claim.package_installed
      local claims = {}
      for _, p in ipairs(list) do claims[#claims + 1] = kind(p .. (where or "")) end
      return core.leaf{ desc = desc, targets = targets, impl = spec.impl[which],
                        args = { packages = list, opts = opts }, claims = claims }
   end

   -- The recipe function of a revertable package recipe: which, reverted
   -- by other, both over the same packages and options.
   function M.pair(which, other)
      local recipe = tool .. "." .. which
      return function(...)
         local v, o, twice = split(schema, ...)
         local err, list = args.list(v, "packages", spec.check, { nonempty = true })
         local oerr, opts
         if twice then
            oerr = twice
         elseif schema then
            oerr, opts = args.options(o, schema, recipe)
         end
         local msg = args.join(recipe, err, oerr)
         if msg then
            local names = type(v) == "string" and v or "..."
            return core.invalid(tool .. " " .. words(which) .. " " .. names, msg)
         end
         opts = opts or {}
         local where = spec.where and spec.where(opts) or nil
         return core.pair(packages_leaf(which, list, opts, where),
                          packages_leaf(other, list, opts, where))
      end
   end

   -- The recipe function of a recipe without package names (it takes the
   -- manager's options, if it has any, as its one argument).
   function M.no_args(which, norevert)
      local recipe, desc = tool .. "." .. which, tool .. " " .. words(which)
      return function(...)
         local a, n = ..., select("#", ...)
         local err, opts
         if schema and n == 1 and type(a) == "table" then
            err, opts = args.options(a, schema, recipe)
         else
            err = packaging.no_args(recipe, a, n)
         end
         if err then return core.invalid(desc, err) end
         opts = opts or {}
         local where = spec.where and spec.where(opts) or ""
         return core.leaf{ desc = desc .. where, targets = targets, impl = spec.impl[which],
                           args = { opts = opts }, norevert = norevert }
      end
   end

   -- One leaf of a package recipe, for recipes built on the manager's
   -- (apt.service_installed_running): which over list, with opts.
   function M.leaf(which, list, opts)
      opts = opts or {}
      return packages_leaf(which, list, opts, spec.where and spec.where(opts) or nil)
   end

   return M
end

return packaging
