package hooks

import "context"

// Func returns a Hook named name that runs fn.
func Func(name string, fn func(ctx context.Context, in *Input) (Decision, error)) Hook {
	return funcHook{name: name, fn: fn}
}

type funcHook struct {
	name string
	fn   func(ctx context.Context, in *Input) (Decision, error)
}

func (h funcHook) Name() string { return h.name }

func (h funcHook) Run(ctx context.Context, in *Input) (Decision, error) { return h.fn(ctx, in) }
