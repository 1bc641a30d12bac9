package io.github.agentlb.camel;

/**
 * An exception that says how its attempt ended: {@link FailureClassifier} takes its
 * {@link #outcome()} as it is, wherever it sits in the cause chain (the first one found wins over
 * every other rule). For children that know more than a transport exception tells, such as a
 * child streaming an agent's answer (the client left: {@link AttemptOutcome#CANCELLED}; the answer
 * broke off after its first byte reached the client: {@link AttemptOutcome#FAILED_AFTER_FIRST_BYTE};
 * no answer began in time: {@link AttemptOutcome#ANSWER_TIMED_OUT}).
 */
public interface ClassifiedFailure {

    /** @return how the attempt ended; never {@link AttemptOutcome#SUCCESS} nor null */
    AttemptOutcome outcome();
}
