package io.github.agentlb.camel;

/**
 * The end of an attempt of a hedged request whose answer came after another attempt's answer head
 * ({@link HedgingSettings}): its result is discarded. The attempt ends
 * {@link AttemptOutcome#CANCELLED}: it neither fails over nor counts against its agent here (the
 * winner's side counts the lost race, once, against the agent that lost it).
 */
public class HedgeLostException extends Exception implements ClassifiedFailure {

    private static final long serialVersionUID = 1L;

    /** @param agent the agent whose answer came too late */
    public HedgeLostException(String agent) {
        super("another agent answered first (hedged request): the answer of agent " + agent + " is discarded");
    }

    /** @return {@link AttemptOutcome#CANCELLED} */
    @Override
    public AttemptOutcome outcome() {
        return AttemptOutcome.CANCELLED;
    }
}
