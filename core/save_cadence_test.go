package core

import (
	"testing"
	"time"

	"trail/core/chat"
)

// A save between rounds comes due when the conversation grew by a quarter,
// or when the last save is old: two seconds, or ten times what that save
// took when that is longer. With a flat two seconds, a record whose save
// took two seconds was rewritten after every round, and a long loop spent
// nearly all its time rewriting it.
func TestASaveComesDueAfterTenTimesItsOwnCost(t *testing.T) {
	now := fakeClock{}.Now()
	tests := []struct {
		name      string
		grown     int
		sinceSave time.Duration
		saveCost  time.Duration
		due       bool
	}{
		{"grown by a quarter", 250, 0, 0, true},
		{"a cheap save two seconds old", 10, 2 * time.Second, 50 * time.Millisecond, true},
		{"a cheap save a second old", 10, time.Second, 50 * time.Millisecond, false},
		{"a 3 s save 2.5 s old", 10, 2500 * time.Millisecond, 3 * time.Second, false},
		{"a 3 s save 29 s old", 10, 29 * time.Second, 3 * time.Second, false},
		{"a 3 s save 30 s old", 10, 30 * time.Second, 3 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &session{e: &Engine{Clock: fakeClock{}}, log: brokenLog{}}
			s.messages = make([]chat.Message, 1000+tt.grown)
			s.savedMessages = 1000
			s.savedAt = now.Add(-tt.sinceSave)
			s.saveCost = tt.saveCost
			if got := s.saveDue(); got != tt.due {
				t.Fatalf("saveDue = %v, want %v", got, tt.due)
			}
		})
	}
}
