package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/misslab/misslab/internal/fpclass"
)

// bindFPClass ties the data directory to the floating-point class the
// coordinator accepts (Options.FPClass), so that a stored job's scores
// never mix classes across restarts, upgrades or machines: a store
// without results takes the accepted class; one whose results carry
// another class is refused (ErrPrecondition) unless the coordinator
// accepts that class or any, or this build recomputes a sample of them
// bit for bit (Options.VerifyClass). Accepting any class records "any" for
// good: from then on the store's scores may depend on which worker ran
// a job. A store from before classes were recorded takes the accepted
// class, with a warning, since its results' class is unknown.
func (c *Coordinator) bindFPClass(ctx context.Context, dir string) error {
	stored, hasResults, err := c.st.FPClass()
	if err != nil {
		return err
	}
	want := c.opts.FPClass
	switch {
	case stored == want:
		return nil
	case !hasResults: // nothing to protect: the directory takes the accepted class
	case stored == "":
		c.log.Warn("results stored before floating-point classes were recorded: their class is unknown", "data", dir, "fp_class", want)
	case stored == fpclass.Any:
		c.log.Warn("the data directory's results already mix floating-point classes", "data", dir)
		return nil
	case want == fpclass.Any:
		c.log.Warn("results of one floating-point class will be mixed with others", "data", dir, "stored_fp_class", stored)
	default:
		if err := c.verifyClass(ctx, dir, stored); err != nil {
			return fmt.Errorf("%w: data directory %s holds results computed under floating-point class %q, "+
				"and this coordinator accepts %q (%w): serve it with --fp-class %q and workers of that class, "+
				"or --fp-class any to mix classes (scores then depend on which worker ran a job), or use another data directory",
				ErrPrecondition, dir, stored, want, err, stored)
		}
	}
	return c.st.SetFPClass(want)
}

// errNoVerify is verifyClass's answer when it cannot vouch for the class.
var errNoVerify = errors.New("no recomputation can vouch for it")

// verifyClass checks, when the coordinator accepts its own class and has
// Options.VerifyClass, that this build recomputes a sample of the stored
// results bit for bit, so that the directory may take its class.
func (c *Coordinator) verifyClass(ctx context.Context, dir, stored string) error {
	want := c.opts.FPClass
	if c.opts.VerifyClass == nil || want != fpclass.Current() {
		return errNoVerify
	}
	c.log.Info("recomputing stored results to check this build's floating-point class", "data", dir,
		"stored_fp_class", stored, "fp_class", want)
	n, err := c.opts.VerifyClass(ctx, c.st)
	if err != nil {
		return fmt.Errorf("recomputed under this build: %w", err)
	}
	c.log.Info("stored results recomputed bit for bit: the data directory takes this build's class", "data", dir,
		"stored_fp_class", stored, "fp_class", want, "scores", n)
	return nil
}
