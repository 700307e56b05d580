package toml

import (
	"fmt"
	"time"
)

// Error is a decoding error and where it happened.
type Error struct {
	// Line and Column are 1-based; Column counts characters, not bytes.
	Line, Column int
	Msg          string
}

// Error formats the error as "line:column: message", to be prefixed with
// the file name.
func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Column, e.Msg) }

// LocalDate is a TOML local date (1979-05-27): a day without a time zone.
type LocalDate struct {
	Year  int
	Month time.Month
	Day   int
}

func (d LocalDate) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day) }

// LocalTime is a TOML local time (07:32:00.999999): a time of day without
// a date or time zone. Second may be 60 (a leap second).
type LocalTime struct {
	Hour, Minute, Second int
	Nanosecond           int
}

func (t LocalTime) String() string {
	s := fmt.Sprintf("%02d:%02d:%02d", t.Hour, t.Minute, t.Second)
	if t.Nanosecond != 0 {
		s += fmt.Sprintf(".%09d", t.Nanosecond)
	}
	return s
}

// LocalDateTime is a TOML local date-time (1979-05-27T07:32:00): a date
// and time without a time zone.
type LocalDateTime struct {
	Date LocalDate
	Time LocalTime
}

func (dt LocalDateTime) String() string { return dt.Date.String() + "T" + dt.Time.String() }
