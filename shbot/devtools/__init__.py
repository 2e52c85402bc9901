"""Development tools shipped with the package: a fake Telegram Bot API and a driver that
plays games against the real bot through it. The benchmarks use them from an installed
package; the tests re-export them."""
