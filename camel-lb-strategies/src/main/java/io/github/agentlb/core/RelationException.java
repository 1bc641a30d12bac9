package io.github.agentlb.core;

/**
 * A relation between two settings does not hold: {@code "<field> must be <op> <other> (<otherValue>),
 * was <value>"}, e.g. {@code maxEjectionTime must be >= baseEjectionTime (PT10M), was PT5M}.
 * {@link #naming(String)} states the same relation from the other setting's side, for the caller
 * that set that one ({@code baseEjectionTime must be <= maxEjectionTime (PT5M), was PT10M}).
 * Internal to the library, as {@link Check}.
 */
public final class RelationException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String field;
    private final String operator;
    private final String other;
    private final transient Object value;
    private final transient Object otherValue;

    /**
     * @param field      the setting named first
     * @param operator   what {@code field} must be to {@code other}: {@code <=}, {@code >=}, {@code <} or {@code >}
     * @param other      the other setting
     * @param otherValue the other setting's value
     * @param value      {@code field}'s value
     */
    public RelationException(String field, String operator, String other, Object otherValue, Object value) {
        super(field + " must be " + operator + " " + other + " (" + otherValue + "), was " + value);
        this.field = field;
        this.operator = operator;
        this.other = other;
        this.value = value;
        this.otherValue = otherValue;
    }

    /** @return the setting named first */
    public String field() {
        return field;
    }

    /** @return the other setting */
    public String other() {
        return other;
    }

    /**
     * @return this relation named from {@code knob}'s side when {@code knob} is the other setting
     *     (the operator turned round), else this
     */
    public RelationException naming(String knob) {
        if (!other.equals(knob)) {
            return this;
        }
        String turned = switch (operator) {
            case "<=" -> ">=";
            case ">=" -> "<=";
            case "<" -> ">";
            case ">" -> "<";
            default -> throw new IllegalStateException("operator " + operator);
        };
        return new RelationException(other, turned, field, value, otherValue);
    }
}
