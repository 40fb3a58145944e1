//go:build !unix

package main

// fdLimitError: only Unix systems have an open-files limit this low.
func fdLimitError() string { return "" }
