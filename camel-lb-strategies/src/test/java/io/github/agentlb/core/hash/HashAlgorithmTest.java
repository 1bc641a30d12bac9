package io.github.agentlb.core.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Official FNV test vectors (Fowler/Noll/Vo reference test suite, {@code test_fnv.c}), RFC 1321 MD5
 * vectors and golden values of MurmurHash3's fmix64.
 */
class HashAlgorithmTest {

    @ParameterizedTest(name = "{0}(\"{1}\") = {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
            // FNV: the empty input hashes to the offset basis
            "FNV1_32  | '' | 811c9dc5",
            "FNV1A_32 | '' | 811c9dc5",
            "FNV1_64  | '' | cbf29ce484222325",
            "FNV1A_64 | '' | cbf29ce484222325",
            "FNV1_32  | a | 050c5d7e",
            "FNV1A_32 | a | e40c292c",
            "FNV1_64  | a | af63bd4c8601b7be",
            "FNV1A_64 | a | af63dc4c8601ec8c",
            "FNV1_32  | b | 050c5d7d",
            "FNV1A_32 | b | e70c2de5",
            "FNV1_64  | b | af63bd4c8601b7bd",
            "FNV1A_64 | b | af63df4c8601f1a5",
            "FNV1_32  | c | 050c5d7c",
            "FNV1A_32 | c | e60c2c52",
            "FNV1_64  | c | af63bd4c8601b7bc",
            "FNV1A_64 | c | af63de4c8601eff2",
            "FNV1_32  | foo | 408f5e13",
            "FNV1A_32 | foo | a9f37ed7",
            "FNV1_64  | foo | d8cbc7186ba13533",
            "FNV1A_64 | foo | dcb27518fed9d577",
            "FNV1_32  | foobar | 31f0b262",
            "FNV1A_32 | foobar | bf9cf968",
            "FNV1_64  | foobar | 340d8765a4dda9c2",
            "FNV1A_64 | foobar | 85944171f73967e8",
            // MD5: the first eight digest bytes, big-endian
            "MD5      | '' | d41d8cd98f00b204",
            "MD5      | a | 0cc175b9c0f1b6a8",
            "MD5      | abc | 900150983cd24fb0",
            "MD5      | message digest | f96b697d7cb7938d",
    })
    void matchesTheReferenceTestVectors(HashAlgorithm algorithm, String input, String expectedHex) {
        assertThat(algorithm.hash(input)).isEqualTo(Long.parseUnsignedLong(expectedHex, 16));
        assertThat(algorithm.hash(input.getBytes(StandardCharsets.UTF_8)))
                .isEqualTo(Long.parseUnsignedLong(expectedHex, 16));
    }

    @Test
    void thirtyTwoBitFunctionsAreZeroExtended() {
        assertThat(HashAlgorithm.FNV1_32.hash("a")).isEqualTo(0x050c5d7eL);
        assertThat(HashAlgorithm.FNV1A_32.hash("foobar")).isEqualTo(0xbf9cf968L).isPositive();
    }

    @ParameterizedTest(name = "fmix64({0}) = {1}")
    @CsvSource({
            "0000000000000000, 0000000000000000",
            "0000000000000001, b456bcfc34c2cb2c",
            "0000000000000002, 3abf2a20650683e7",
            "cbf29ce484222325, efd01f60ba992926",
            "ffffffffffffffff, 64b5720b4b825f21",
    })
    void fmix64MatchesGoldenValues(String inputHex, String expectedHex) {
        // Golden values from an independent Python port of MurmurHash3.cpp's fmix64.
        assertThat(HashAlgorithm.fmix64(Long.parseUnsignedLong(inputHex, 16)))
                .isEqualTo(Long.parseUnsignedLong(expectedHex, 16));
    }

    @Test
    void mixedVariantsAreFnvFollowedByFmix64() {
        assertThat(HashAlgorithm.FNV1_64_MIXED.hash("a")).isEqualTo(0xb2e4a4ac44745c8fL);
        assertThat(HashAlgorithm.FNV1_64_MIXED.hash("foobar"))
                .isEqualTo(HashAlgorithm.fmix64(HashAlgorithm.FNV1_64.hash("foobar")));
        assertThat(HashAlgorithm.FNV1A_64_MIXED.hash("foobar"))
                .isEqualTo(HashAlgorithm.fmix64(0x85944171f73967e8L));
        assertThat(HashAlgorithm.FNV1_64.mixed().hash("foobar")).isEqualTo(HashAlgorithm.FNV1_64_MIXED.hash("foobar"));
    }

    @ParameterizedTest
    @CsvSource({
            "md5, MD5",
            "MD5, MD5",
            "fnv1-32, FNV1_32",
            "fnv1a-32, FNV1A_32",
            "fnv1-64, FNV1_64",
            "FNV1A_64, FNV1A_64",
            "' fnv1-64-mixed ', FNV1_64_MIXED",
            "Fnv1a-64-Mixed, FNV1A_64_MIXED",
    })
    void fromNameAcceptsConfigNamesAndEnumNames(String name, HashAlgorithm expected) {
        assertThat(HashAlgorithm.fromName(name)).isEqualTo(expected);
    }

    @Test
    void configNameRoundTrips() {
        for (HashAlgorithm algorithm : HashAlgorithm.values()) {
            assertThat(HashAlgorithm.fromName(algorithm.configName())).isEqualTo(algorithm);
        }
        assertThat(HashAlgorithm.FNV1A_64_MIXED.configName()).isEqualTo("fnv1a-64-mixed");
    }

    @ParameterizedTest
    @ValueSource(strings = {"sha1", "", "fnv", "fnv1_128"})
    void fromNameRejectsUnknownNamesNamingTheValue(String name) {
        assertThatThrownBy(() -> HashAlgorithm.fromName(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("hashFunction must be one of md5, fnv1-32")
                .hasMessageEndingWith("was " + name);
    }

    @Test
    void fromNameRejectsNull() {
        assertThatThrownBy(() -> HashAlgorithm.fromName(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("was null");
    }

    @Test
    void hashOfATextIsTheHashOfItsUtf8BytesWithoutAllocating() {
        String[] texts = {"", "42", "user-\u00e9\u00df", "\u20ac\u4e2d\u6587", "emoji \ud83d\ude00 pair",
                "lone high \ud83d end", "lone low \ude00 x", "trailing high \ud83d", "\u0000\u007f\u0080\u07ff\u0800\uffff",
                "x".repeat(70) + "\u00e9".repeat(40), "\u4e2d".repeat(200)};
        for (HashAlgorithm algorithm : HashAlgorithm.values()) {
            for (String text : texts) {
                assertThat(algorithm.hash(text)).as("%s(%s)", algorithm, text)
                        .isEqualTo(algorithm.hash(text.getBytes(StandardCharsets.UTF_8)));
            }
        }
    }
}
