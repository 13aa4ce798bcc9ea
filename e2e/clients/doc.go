// Package clients makes API clients from the OpenAPI document the server
// answers, with the generators and the commands the tutorial gives, and
// calls a real server with them: what an integrator does first.
package clients
