package chat

import (
	"encoding/json"
	"fmt"
	"sync"
)

// parallelDecodeMin is the conversation length from which decoding is split
// across two goroutines: below it, starting one costs more than it saves.
const parallelDecodeMin = 2000

// DecodeMessages decodes a record's messages (already validated with the
// record). A long conversation is decoded in two halves at once. The slice
// has room for the messages a step appends: growing it would copy every
// message (about 300 bytes each) into memory the process must fault in,
// which for a 10,000-message session costs more than decoding them.
func DecodeMessages(raws []json.RawMessage) ([]Message, error) {
	msgs := make([]Message, len(raws), len(raws)+len(raws)/4+16)
	decode := func(from, to int) error {
		for i := from; i < to; i++ {
			m, err := decodeValidMessage(raws[i])
			if err != nil {
				return fmt.Errorf("message %d: %w", i, err)
			}
			msgs[i] = m
		}
		return nil
	}
	if len(raws) < parallelDecodeMin {
		return msgs, decode(0, len(raws))
	}
	half := len(raws) / 2
	var wg sync.WaitGroup
	var firstErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		firstErr = decode(0, half)
	}()
	secondErr := decode(half, len(raws))
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return msgs, secondErr
}
