package officedoc

import (
	"errors"
	"strings"
	"testing"
)

// A document that cannot be read says what to do: an empty file, a
// damaged one or another format under the kind's name.
func TestFormatErrorsSayWhatToDo(t *testing.T) {
	for _, tc := range []struct {
		kind, data, want string
	}{
		{"docx", "", "the file is empty: check that it was saved or copied whole"},
		{"eml", " \r\n", "the file is empty"},
		{"docx", "not a zip", "open it in Office or LibreOffice and save it again as DOCX"},
		{"odp", "not a zip", "open it in LibreOffice and save it again"},
		{"epub", "not a zip", "e-book editor"},
		{"eml", "no header here\r\n\r\nbody", "save the message again from the mail program"},
	} {
		_, err := Read(t.Context(), tc.kind, []byte(tc.data), Options{})
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: error %v, want ErrFormat saying %q", tc.kind, tc.data, err, tc.want)
		}
	}
}
