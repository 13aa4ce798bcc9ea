package cli_test

import (
	"regexp"
	"strings"
	"testing"
)

// flagLine is a flag's line in a command's --help: its name, and the
// rest of the line.
var flagLine = regexp.MustCompile(`(?m)^\s+(?:-\w, )?--([a-z0-9-]+)(.*)$`)

// TestHelpNamesEnvironment: platen --help says how flags map to PLATEN_*
// variables, and every command's --help names each flag's variable
// beside it (help and version, which no variable sets, aside).
func TestHelpNamesEnvironment(t *testing.T) {
	t.Parallel()
	root := runOK(t, nil, "--help").stdout
	for _, want := range []string{"PLATEN_", "--data-dir is PLATEN_DATA_DIR", "wins over"} {
		if !strings.Contains(root, want) {
			t.Errorf("platen --help does not say %q:\n%s", want, root)
		}
	}
	commands := [][]string{
		{"serve"}, {"render"}, {"migrate"}, {"admin"}, {"admin", "bootstrap"},
		{"admin", "store", "webhook"}, {"admin", "token", "issue"}, {"admin", "operator", "create"},
	}
	for _, command := range commands {
		help := runOK(t, nil, append(command, "--help")...).stdout
		lines := flagLine.FindAllStringSubmatch(help, -1)
		if len(lines) < 3 {
			t.Errorf("platen %s --help lists %d flags", strings.Join(command, " "), len(lines))
		}
		for _, l := range lines {
			name, rest := l[1], l[2]
			if name == "help" || name == "version" {
				continue
			}
			want := "(env PLATEN_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + ")"
			if !strings.Contains(rest, want) {
				t.Errorf("platen %s --help: --%s does not name %s:%s", strings.Join(command, " "), name, want, rest)
			}
		}
	}
}

// TestAdminHelpNamesItsSubjects: what platen --help says admin manages
// names the subject of each of its commands.
func TestAdminHelpNamesItsSubjects(t *testing.T) {
	t.Parallel()
	m := regexp.MustCompile(`(?m)^\s+admin\s+(.*)$`).FindStringSubmatch(runOK(t, nil, "--help").stdout)
	if m == nil {
		t.Fatal("platen --help does not list admin")
	}
	subjects := map[string]string{ // subcommand → what the line must name
		"bootstrap": "set up", "team": "teams", "store": "stores", "store webhook": "webhooks",
		"token": "API tokens", "operator": "operator accounts", "print": "prints", "keys": "link-signing key",
	}
	for command, subject := range subjects {
		if !strings.Contains(strings.ToLower(m[1]), strings.ToLower(subject)) {
			t.Errorf("admin's line %q does not name %q, which admin %s manages", m[1], subject, command)
		}
	}
}
