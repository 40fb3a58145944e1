package commands

import (
	"strings"

	"github.com/urfave/cli/v2"

	"trail/core"
	"trail/core/permission"
)

// ruleFlag collects a repeatable rule flag. urfave/cli's StringSliceFlag
// would split "Bash(echo a,b)" at the comma; a rule is kept whole.
type ruleFlag struct{ rules []string }

func (f *ruleFlag) Set(v string) error {
	f.rules = append(f.rules, v)
	return nil
}

func (f *ruleFlag) String() string { return strings.Join(f.rules, " ") }

func ruleValues(c *cli.Context, name string) []string {
	if f, ok := c.Generic(name).(*ruleFlag); ok && f != nil {
		return append([]string(nil), f.rules...)
	}
	return nil
}

// permissionOptions reads --permission-mode, --allow-tool, --deny-tool,
// --tools and --on-ask. The step checks their values (core's options.go)
// before any file is touched.
func permissionOptions(c *cli.Context, s *core.StepOptions) {
	s.PermissionMode = c.String("permission-mode")
	if s.PermissionMode == "" && c.Bool("dangerously-skip-permissions") {
		s.PermissionMode = permission.ModeBypass
	}
	s.AllowRules = append(ruleValues(c, "allow-tool"), listValues(c, "allowedTools")...)
	s.DenyRules = append(ruleValues(c, "deny-tool"), listValues(c, "disallowedTools")...)
	s.OnAsk = c.String("on-ask")
	s.AddDirs = ruleValues(c, "add-dir")
	if c.IsSet("tools") {
		list := strings.TrimSpace(c.String("tools"))
		s.Tools = []string{}
		if list != "none" {
			for _, name := range strings.Split(list, ",") {
				if name = strings.TrimSpace(name); name != "" {
					s.Tools = append(s.Tools, name)
				}
			}
		}
	}
}
