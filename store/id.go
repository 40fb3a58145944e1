package store

import "fmt"

// maxIDLen bounds an id so a record name always fits a file name (255 bytes)
// with the ".json.tmp-NNNNNNNNNN" suffix to spare.
const maxIDLen = 128

// ValidateID reports whether id matches ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$.
// The first character cannot be '.' or '-', so an id is never "..", a hidden
// file or something a tool would read as a flag.
func ValidateID(id string) error {
	if len(id) == 0 || len(id) > maxIDLen || !isIDStart(id[0]) {
		return fmt.Errorf("%w %s", ErrInvalidID, QuoteInput(id))
	}
	for i := 1; i < len(id); i++ {
		if c := id[i]; !isIDStart(c) && c != '.' && c != '_' && c != '-' {
			return fmt.Errorf("%w %s", ErrInvalidID, QuoteInput(id))
		}
	}
	return nil
}

func isIDStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
