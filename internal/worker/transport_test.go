package worker

import (
	"errors"
	"testing"
)

func TestAttemptsCountIdenticalFailuresInARow(t *testing.T) {
	type step struct {
		kind   outcome
		reason string
	}
	boom := errors.New("boom")
	cases := []struct {
		name     string
		steps    []step
		wantKind outcome
		wantRun  int
	}{
		{"same refusal thrice", []step{{rejected, "a"}, {rejected, "a"}, {rejected, "a"}}, rejected, 3},
		{"another reason restarts the run", []step{{rejected, "a"}, {rejected, "a"}, {rejected, "b"}}, rejected, 1},
		{"a good answer ends the run", []step{{rejected, "a"}, {rejected, "a"}, {spoke, ""}, {rejected, "a"}}, rejected, 1},
		{"silent closes", []step{{silent, ""}, {silent, ""}}, silent, 2},
		{"silent then refused", []step{{silent, ""}, {silent, ""}, {rejected, "a"}}, rejected, 1},
		{"nothing", nil, spoke, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var a attempts
			for _, s := range c.steps {
				a.record(s.kind, s.reason, boom)
			}
			kind, _, _, run := a.streak()
			if kind != c.wantKind || run != c.wantRun {
				t.Fatalf("streak = (%v, %d), want (%v, %d)", kind, run, c.wantKind, c.wantRun)
			}
		})
	}
}
