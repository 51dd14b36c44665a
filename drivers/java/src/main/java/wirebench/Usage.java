package wirebench;

/** Bad usage (unknown command, flag, suite, case, library or value): exit status 2. */
public final class Usage extends Exception {
  private static final long serialVersionUID = 1L;

  public Usage(String message) {
    super(message, null, false, false);
  }
}
