package commands

import "testing"

// Colour on stderr: one decision for all of trail (ColorEnabled).
func TestColorFollowsTheEnvironmentConventions(t *testing.T) {
	tests := []struct {
		name    string
		tty     bool
		env     map[string]string
		noColor bool // --no-color
		want    bool
	}{
		{"a terminal has colour", true, nil, false, true},
		{"a pipe has none", false, nil, false, false},
		{"NO_COLOR turns it off", true, map[string]string{"NO_COLOR": "1"}, false, false},
		{"an empty NO_COLOR does not", true, map[string]string{"NO_COLOR": ""}, false, true},
		{"TERM=dumb turns it off", true, map[string]string{"TERM": "dumb"}, false, false},
		{"CLICOLOR=0 turns it off", true, map[string]string{"CLICOLOR": "0"}, false, false},
		{"CLICOLOR=1 leaves a pipe without", false, map[string]string{"CLICOLOR": "1"}, false, false},
		{"CLICOLOR_FORCE=1 colours a pipe", false, map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{"CLICOLOR_FORCE=0 does not", false, map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{"FORCE_COLOR=1 colours a pipe", false, map[string]string{"FORCE_COLOR": "1"}, false, true},
		{"FORCE_COLOR=3 too", false, map[string]string{"FORCE_COLOR": "3"}, false, true},
		{"FORCE_COLOR=0 does not", false, map[string]string{"FORCE_COLOR": "0"}, false, false},
		{"FORCE_COLOR=false does not (chalk)", false, map[string]string{"FORCE_COLOR": "false"}, false, false},
		{"an empty FORCE_COLOR does not", false, map[string]string{"FORCE_COLOR": ""}, false, false},
		{"forcing beats CLICOLOR=0", true, map[string]string{"CLICOLOR": "0", "CLICOLOR_FORCE": "1"}, false, true},
		{"forcing beats TERM=dumb", false, map[string]string{"TERM": "dumb", "FORCE_COLOR": "1"}, false, true},
		{"NO_COLOR beats forcing", false, map[string]string{"NO_COLOR": "1", "FORCE_COLOR": "1", "CLICOLOR_FORCE": "1"}, false, false},
		{"--no-color beats forcing", true, map[string]string{"CLICOLOR_FORCE": "1"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := TestIO()
			ios.SetTTY(tt.tty, tt.tty, tt.tty)
			if tt.noColor {
				ios.SetNoColor()
			}
			if got := ios.ColorEnabled(func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("colour = %v, want %v", got, tt.want)
			}
		})
	}
}

// Forcing colour never makes a pipe a terminal: no spinner, no question.
func TestForcedColorAnimatesNothing(t *testing.T) {
	env := map[string]string{"FORCE_COLOR": "1", "CLICOLOR_FORCE": "1"}
	ios, _, _, _ := TestIO()
	if ios.CanAnimate(func(k string) string { return env[k] }) || ios.CanPrompt() {
		t.Error("forced colour in a pipe turned on the spinner or a question")
	}
	ios.SetTTY(true, true, true)
	if ios.CanAnimate(func(k string) string { return map[string]string{"TERM": "dumb"}[k] }) {
		t.Error("TERM=dumb animates")
	}
}
