package commands

import (
	"io"
	"strings"
	"sync"

	"github.com/urfave/cli/v2"
)

// Help into a reader that stopped reading (`trail run --help | head -1`,
// `trail --help | grep -q -- --stream` in a pipefail script) is not a
// failure: nothing was at stake, and the reader has what it wanted. Which
// write met the closed pipe depended on timing, so such a pipeline used to
// fail most of the time, and not always. urfave/cli prints every help text
// through HelpPrinterCustom; trail's standard output is told it carries
// help, and Main then takes a reader gone away as success (finish).
var markHelpOnce sync.Once

func markHelpOutput() {
	markHelpOnce.Do(func() {
		show := cli.HelpPrinterCustom
		cli.HelpPrinterCustom = func(w io.Writer, templ string, data interface{}, funcs map[string]interface{}) {
			o, ok := w.(*outWriter)
			if !ok {
				show(w, templ, data, funcs)
				return
			}
			o.mu.Lock()
			o.help = true
			width := o.helpWidth
			o.mu.Unlock()
			if width <= 0 {
				show(w, templ, data, funcs)
				return
			}
			var buf strings.Builder
			show(&buf, templ, data, funcs)
			_, _ = io.WriteString(w, wrapHelp(buf.String(), width))
		}
	})
}

// helpOnly reports whether standard output carried help.
func (s *IOStreams) helpOnly() bool {
	o, ok := s.Out.(*outWriter)
	if !ok {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.help
}
