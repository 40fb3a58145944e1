package commands

import (
	"os"

	"golang.org/x/sys/windows"
)

// ttyWidth asks the console behind f how many columns its window has.
func ttyWidth(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0
	}
	return int(info.Window.Right-info.Window.Left) + 1
}
