package wirebench;

/** A failed run (wrong answer, corrupt message, I/O error): exit status 1. */
public class Failure extends Exception {
  private static final long serialVersionUID = 1L;

  public Failure(String message) {
    super(message, null, false, false);
  }

  /** A failure from an exception thrown by a library or the JDK, saying which and why. */
  public static Failure of(String what, Throwable e) {
    String m = e.getMessage();
    return new Failure(what + ": " + (m == null ? e.getClass().getSimpleName() : m));
  }
}
