package main_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf16"
)

// utf16File is text as Windows PowerShell 5.1's > and Out-File write it
// (their default "Unicode" encoding: UTF-16 little-endian with a
// byte-order mark, CRLF line ends), or big-endian with its mark.
func utf16File(text string, order binary.ByteOrder) []byte {
	var b bytes.Buffer
	for _, u := range utf16.Encode([]rune("\uFEFF" + text)) {
		binary.Write(&b, order, u)
	}
	return b.Bytes()
}

// A UTF-16 file with a byte-order mark is text: Read shows it, Grep finds
// in it, and Edit and Write change it in its own encoding, mark and line
// ends. Before, Read and Edit refused it as binary and Grep skipped it.
func TestUTF16FilesAreReadSearchedAndEditedInTheirEncoding(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const text = "Name,City\r\nZoë,Zürich\r\nAmir,القاهرة\r\nYuki,東京 🗼\r\n"
	e.writeFile("people.csv", string(utf16File(text, binary.LittleEndian)))
	e.writeFile("notes.txt", string(utf16File("first\nsecond\n", binary.BigEndian)))
	e.writeFile("blob.bin", "PK\x03\x04\x00\x00 not text")
	s := e.script(calls(
		call("Read", map[string]any{"filePath": "people.csv"}),
		call("Grep", map[string]any{"pattern": "Zürich|東京", "outputMode": "content"}),
		call("Read", map[string]any{"filePath": "blob.bin"}),
		call("Read", map[string]any{"filePath": "notes.txt"}),
	), calls(
		call("Edit", map[string]any{"filePath": "people.csv", "oldString": "Yuki,東京 🗼", "newString": "Yuki,京都\nLena,Köln"}),
		call("Write", map[string]any{"filePath": "notes.txt", "content": "only line\n"}),
	), answer("done"))
	e.must("", "run", "--provider", "script", "--script", s, "--permission-mode", "acceptEdits", "go")
	res := e.toolResults(e.onlySession())

	read, _ := res["call_0_0"]["output"].(string)
	for _, want := range []string{"Zoë,Zürich", "Amir,القاهرة", "Yuki,東京 🗼"} {
		if !strings.Contains(read, want) {
			t.Errorf("Read of a UTF-16 file lacks %q: %q", want, read)
		}
	}
	if strings.Contains(read, "\uFEFF") || strings.Contains(read, "\x00") {
		t.Errorf("Read shows the mark or NULs: %q", read)
	}
	grep, _ := res["call_0_1"]["output"].(string)
	if !strings.Contains(grep, "people.csv:2:Zoë,Zürich") || !strings.Contains(grep, "people.csv:4:Yuki,東京 🗼") {
		t.Errorf("Grep in a UTF-16 file = %q", grep)
	}
	if got, _ := res["call_0_2"]["error"].(string); !strings.Contains(got, "Binary file not supported") {
		t.Errorf("a real binary file = %v", res["call_0_2"])
	}

	want := utf16File("Name,City\r\nZoë,Zürich\r\nAmir,القاهرة\r\nYuki,京都\r\nLena,Köln\r\n", binary.LittleEndian)
	if got := e.read("people.csv"); got != string(want) {
		t.Errorf("after Edit, people.csv = % x\nwant % x", got, want)
	}
	if got, _ := res["call_0_3"]["output"].(string); !strings.Contains(got, "1\tfirst") || !strings.Contains(got, "2\tsecond") {
		t.Errorf("Read of a big-endian file = %q", got)
	}
	if got := e.read("notes.txt"); got != string(utf16File("only line\n", binary.BigEndian)) {
		t.Errorf("after Write, notes.txt = % x", got)
	}
	for _, id := range []string{"call_1_0", "call_1_1"} {
		if res[id]["success"] != true {
			t.Errorf("%s = %v", id, res[id])
		}
	}
}
