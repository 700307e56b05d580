// Package retry is the HTTP retry policy shared by the model providers:
// which responses are worth another attempt, how long to wait (server
// headers first, then capped exponential backoff with jitter), and the loop
// that runs attempts and reports each wait.
//
// Only the request/response-header phase is retried. Once a stream has
// started, a failure is final, because the user has already seen part of
// the answer.
//
// Concurrency: Policy is an immutable value; Do may run concurrently from
// many goroutines as long as the injected Sleep, Now and Jitter functions
// are safe for concurrent use (the defaults are).
package retry
