// Package replaytest is the record side of the replay provider's test
// machinery, kept out of the product: LoadAuthored reads a hand-written
// fixture (response bodies only) and WireServer serves a fixture's
// response bodies over the Anthropic Messages wire, standing in for the
// live API. The snapshot harness's -author mode records against it, and
// tests of record mode use it; nothing in the cordis binary imports this
// package.
//
//	fx, _ := replaytest.LoadAuthored("fixtures/text-turn")
//	srv := httptest.NewServer(replaytest.NewWireServer(fx))
//	// run cordis in record mode with ANTHROPIC_BASE_URL=srv.URL
//
// Concurrency: a WireServer is safe for concurrent requests; its
// bookkeeping is serialized by one mutex.
package replaytest
