package arena

import (
	"context"

	"golang.org/x/sync/errgroup"

	"github.com/tabula-zero/tabula/internal/progress"
)

// EachPosition judges n positions of a test set (Pons' sets, the Lion
// oracle's) on concurrency workers, each with its own player from s and
// the judge newJudge makes for it (with whatever else a worker needs of
// its own, such as a solver). judge(ctx, pl, i) plays position i with pl
// as a new game and records the verdict (under the caller's lock). The
// context's progress tracker counts the positions judged. The first error
// stops every worker.
func EachPosition(ctx context.Context, s *Spec, n, concurrency int, newJudge func() (func(ctx context.Context, pl Player, i int) error, error)) error {
	prog := progress.FromContext(ctx)
	g, ctx := errgroup.WithContext(ctx)
	jobs := make(chan int)
	g.Go(func() error {
		defer close(jobs)
		for i := range n {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	for range min(max(concurrency, 1), max(n, 1)) {
		g.Go(func() error {
			pl, err := s.New()
			if err != nil {
				return err
			}
			defer pl.Close()
			judge, err := newJudge()
			if err != nil {
				return err
			}
			for i := range jobs {
				if err := judge(ctx, pl, i); err != nil {
					return err
				}
				prog.Add(1)
			}
			return nil
		})
	}
	return g.Wait()
}
