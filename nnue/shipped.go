package nnue

import (
	"errors"
	"fmt"
	"sync"

	"github.com/tabula-zero/tabula/game/xiangqi"
	"github.com/tabula-zero/tabula/models"
)

// ErrNotShipped is a build without a shipped network (models/xiangqi.nnue).
var ErrNotShipped = errors.New("nnue: no learned network ships with this build")

// Shipped returns the learned network that ships with tabula
// (models/xiangqi.nnue, package models) and its model: m.String() is its
// path in the repository, m.SHA256 its file's checked SHA-256. It is
// decoded once, the first time it is asked for, and shared: a Net is
// read-only once made, so every search may evaluate with it at once.
func Shipped() (n *Net, m models.Model, err error) {
	s := shipped()
	return s.net, s.model, s.err
}

type shippedNet struct {
	net   *Net
	model models.Model
	err   error
}

var shipped = sync.OnceValue(func() shippedNet {
	m, ok := models.Eval(xiangqi.Name)
	if !ok {
		return shippedNet{err: ErrNotShipped}
	}
	b, err := m.Bytes()
	if err != nil {
		return shippedNet{model: m, err: err}
	}
	n, err := Decode(b)
	if err != nil {
		return shippedNet{model: m, err: fmt.Errorf("%w (shipped network %s)", err, m)}
	}
	return shippedNet{net: n, model: m}
})
