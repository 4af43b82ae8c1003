/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.driver;

import io.metaroce.client.ConcurrentPublication;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Subscription;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.client.status.CounterTypeId;
import io.metaroce.codec.ControlMessageReader;
import io.metaroce.codec.control.AddPublicationEncoder;
import io.metaroce.codec.control.ClientKeepaliveEncoder;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.codec.control.ImageAvailableEncoder;
import io.metaroce.codec.control.MessageHeaderEncoder;
import io.metaroce.codec.control.RemoveCounterEncoder;
import io.metaroce.codec.control.RemovePublicationEncoder;
import io.metaroce.codec.control.RemoveSubscriptionEncoder;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input, written straight into the to-driver ring or sent through the API: every case is answered with a clear
 * typed error (when it carries the ids to answer to), counted, and leaves the driver serving a well-behaved client.
 */
class BadInputTest
{
    private static final int STREAM_ID = 2002;
    private static final long ANSWER_TIMEOUT_MS = 5_000;

    private MediaDriver driver;
    private MetaRoce goodClient;
    private ConcurrentPublication goodPublication;
    private Subscription goodSubscription;
    private RawControlChannel raw;
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[16 * 1024]);
    private final MessageHeaderEncoder headerEncoder = new MessageHeaderEncoder();

    @BeforeEach
    void setUp()
    {
        driver = MediaDriver.launch(TestContexts.driverContext()
            .streamSessionLimit(2)
            .toClientsBufferLength(1024 * 1024));
        goodClient = MetaRoce.connect(TestContexts.clientContext(driver));
        goodSubscription = goodClient.addSubscription("metaroce:ipc", STREAM_ID);
        goodPublication = goodClient.addPublication("metaroce:ipc", STREAM_ID);
        raw = new RawControlChannel(driver.directoryName());
        assertGoodClientStillWorks();
    }

    @AfterEach
    void tearDown()
    {
        if (null != raw)
        {
            raw.close();
        }
        if (null != goodClient)
        {
            goodClient.close();
        }
        if (null != driver)
        {
            driver.close();
        }
    }

    @Test
    void shouldAnswerAndCountVarDataLongerThanSchemaAllows()
    {
        final long correlationId = raw.nextCorrelationId();
        final int length = encodeAddPublication(correlationId, "metaroce:ipc");
        buffer.putShort(MessageHeaderEncoder.ENCODED_LENGTH + AddPublicationEncoder.BLOCK_LENGTH, (short)5000,
            ByteOrder.LITTLE_ENDIAN);

        assertAnswered(AddPublicationEncoder.TEMPLATE_ID, length, correlationId,
            "ERROR MALFORMED_COMMAND: malformed command: VAR_DATA_TOO_LONG");
        assertEquals(1, raw.counterValue("Malformed commands: VAR_DATA_TOO_LONG"));
        assertEquals(1, malformedTotal());
        assertGoodClientStillWorks();
    }

    @Test
    void shouldAnswerAndCountVarDataRunningPastRecord()
    {
        final long correlationId = raw.nextCorrelationId();
        final int length = encodeAddPublication(correlationId, "metaroce:ipc");

        assertAnswered(AddPublicationEncoder.TEMPLATE_ID, length - 3, correlationId,
            "ERROR MALFORMED_COMMAND: malformed command: TRUNCATED_VAR_DATA");
        assertGoodClientStillWorks();
    }

    @Test
    void shouldAnswerAndCountTruncatedBlockAndTrailingBytes()
    {
        long correlationId = raw.nextCorrelationId();
        encodeAddPublication(correlationId, "metaroce:ipc");
        assertAnswered(AddPublicationEncoder.TEMPLATE_ID, 28, correlationId,
            "ERROR MALFORMED_COMMAND: malformed command: TRUNCATED_BLOCK");

        correlationId = raw.nextCorrelationId();
        final int length = encodeAddPublication(correlationId, "metaroce:ipc");
        assertAnswered(AddPublicationEncoder.TEMPLATE_ID, length + 8, correlationId,
            "ERROR MALFORMED_COMMAND: malformed command: TRAILING_BYTES");

        assertEquals(2, malformedTotal());
        assertGoodClientStillWorks();
    }

    @Test
    void shouldCountButNotAnswerWhenIdsAreNotReadableOrRecordIsKeepaliveOrEvent()
    {
        final long wrongSchema = raw.nextCorrelationId();
        int length = encodeAddPublication(wrongSchema, "metaroce:ipc");
        buffer.putShort(4, (short)999, ByteOrder.LITTLE_ENDIAN);
        assertTrue(raw.write(AddPublicationEncoder.TEMPLATE_ID, buffer, 0, length));

        final long shortBlock = raw.nextCorrelationId();
        length = encodeAddPublication(shortBlock, "metaroce:ipc");
        buffer.putShort(0, (short)8, ByteOrder.LITTLE_ENDIAN);
        assertTrue(raw.write(AddPublicationEncoder.TEMPLATE_ID, buffer, 0, length));

        final long keepalive = raw.nextCorrelationId();
        length = encodeAddPublication(keepalive, "metaroce:ipc");
        buffer.putShort(2, (short)ClientKeepaliveEncoder.TEMPLATE_ID, ByteOrder.LITTLE_ENDIAN);
        assertTrue(raw.write(ClientKeepaliveEncoder.TEMPLATE_ID, buffer, 0, length));

        final long event = raw.nextCorrelationId();
        final ImageAvailableEncoder imageAvailable = new ImageAvailableEncoder();
        imageAvailable.wrapAndApplyHeader(buffer, 0, headerEncoder).correlationId(7)
            .subscriptionRegistrationId(event).sessionId(1).streamId(1).subscriberPositionCounterId(1).reserved1(0)
            .logFileName("x").sourceIdentity("y");
        assertTrue(raw.write(ImageAvailableEncoder.TEMPLATE_ID, buffer, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + imageAvailable.encodedLength()));

        final long marker = raw.nextCorrelationId();
        final RemoveCounterEncoder removeCounter = new RemoveCounterEncoder();
        removeCounter.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(goodClient.clientId()).correlationId(marker).registrationId(-1);
        assertTrue(raw.write(RemoveCounterEncoder.TEMPLATE_ID, buffer, 0,
            MessageHeaderEncoder.ENCODED_LENGTH + removeCounter.encodedLength()));

        final java.util.Map<Long, String> answers = raw.answersUntil(marker, ANSWER_TIMEOUT_MS);
        assertTrue(answers.containsKey(marker), "marker answered: " + answers);
        for (final long unanswered : new long[]{ wrongSchema, shortBlock, keepalive, event })
        {
            assertFalse(answers.containsKey(unanswered), "answered " + unanswered + ": " + answers);
        }
        assertEquals(1, raw.counterValue("Malformed commands: WRONG_SCHEMA_ID"));
        assertEquals(2, raw.counterValue("Malformed commands: WRONG_BLOCK_LENGTH"));
        assertEquals(1, raw.counterValue("Malformed commands: WRONG_DIRECTION"));
        assertEquals(4, malformedTotal());
        assertGoodClientStillWorks();
    }

    @Test
    void shouldAnswerUnknownCommandTypeForUnknownTemplate()
    {
        final long correlationId = raw.nextCorrelationId();
        final int length = encodeAddPublication(correlationId, "metaroce:ipc");
        buffer.putShort(2, (short)42, ByteOrder.LITTLE_ENDIAN);
        assertAnswered(42, length, correlationId, "ERROR UNKNOWN_COMMAND_TYPE: malformed command: UNKNOWN_TEMPLATE");

        assertEquals(1, raw.counterValue(SystemCounterDescriptor.UNKNOWN_COMMANDS.label()));
        assertGoodClientStillWorks();
    }

    @Test
    void shouldRefuseChannelThatIsNotValidUtf8()
    {
        final long correlationId = raw.nextCorrelationId();
        final int length = encodeAddPublication(correlationId, "metaroce:ipc?x=ab");
        buffer.putByte(length - 1, (byte)0xC3);
        assertAnswered(AddPublicationEncoder.TEMPLATE_ID, length, correlationId,
            "ERROR INVALID_CHANNEL: channel is not valid UTF-8");
        assertGoodClientStillWorks();
    }

    @Test
    void shouldRefuseCounterTypeReservedForDriver()
    {
        final RegistrationException ex = assertThrows(RegistrationException.class,
            () -> goodClient.addCounter(CounterTypeId.CLIENT_HEARTBEAT, "forged heartbeat"));
        assertEquals(ControlErrorCode.CLASH, ex.errorCode());
        assertTrue(ex.getMessage().contains("reserved"), ex.getMessage());
    }

    @Test
    void shouldAnswerRecordTypeMismatch()
    {
        final long correlationId = raw.nextCorrelationId();
        final int length = encodeAddPublication(correlationId, "metaroce:ipc");
        assertAnswered(4, length, correlationId, "ERROR MALFORMED_COMMAND: malformed command: RECORD_TYPE_MISMATCH");
        assertEquals(1, raw.counterValue("Malformed commands: RECORD_TYPE_MISMATCH"));
    }

    @Test
    void shouldCountWithoutAnswerWhenRecordTooShortToHoldIds()
    {
        buffer.putInt(0, 0x01020304);
        assertTrue(raw.write(ClientKeepaliveEncoder.TEMPLATE_ID, buffer, 0, 4));
        awaitCounter("Malformed commands: TOO_SHORT_FOR_HEADER", 1);
        assertGoodClientStillWorks();
    }

    @Test
    void shouldSurviveRandomRecordsAndCountEveryInvalidOne()
    {
        final long seed = Long.getLong("metaroce.fuzz.seed", System.nanoTime());
        System.out.println("BadInputTest fuzz seed=" + seed + " (replay with -Dmetaroce.fuzz.seed=)");
        final SplittableRandom random = new SplittableRandom(seed);
        final ControlMessageReader oracle = new ControlMessageReader();

        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            long invalid = 0;
            for (int i = 0; i < 2_000; i++)
            {
                final int length = randomRecord(random);
                final int msgTypeId = 1 + random.nextInt(12);
                final int templateId = oracle.read(buffer, 0, length);
                if (templateId < 0 || templateId != msgTypeId)
                {
                    invalid++;
                }
                while (!raw.write(msgTypeId, buffer, 0, length))
                {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
                }
            }

            final long expected = invalid;
            awaitValue(() -> malformedTotal(), expected);
        });
        assertGoodClientStillWorks();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "aeron:ipc", "metaroce:", "metaroce:ipc?term-length=1000", "metaroce:ipc?term-length=3g",
        "metaroce:ipc?mtu=abc", "metaroce:ipc?mtu=1000", "metaroce:ipc?foo=1", "metaroce:tcp",
        "metaroce:ipc?term-window=1", "metaroce:ipc?linger=forever", "metaroce:ipc?sparse=maybe",
        "metaroce:ipc?term-id=5", "metaroce:ipc?init-term-id=1|term-id=2|term-offset=3" })
    void shouldRefuseInvalidPublicationChannelNamingTheProblem(final String channel)
    {
        final RegistrationException ex = assertThrows(
            RegistrationException.class, () -> goodClient.addExclusivePublication(channel, STREAM_ID + 1));
        assertEquals(ControlErrorCode.INVALID_CHANNEL, ex.errorCode());
        assertTrue(ex.getMessage().contains("'"), ex.getMessage());
        assertGoodClientStillWorks();
    }

    @Test
    void shouldTruncateLongErrorMessageAndKeepClientAlive()
    {
        final String channel = "metaroce:ipc?foo=" + "x".repeat(4000);
        final RegistrationException ex = assertThrows(
            RegistrationException.class, () -> goodClient.addExclusivePublication(channel, STREAM_ID));
        assertEquals(ControlErrorCode.INVALID_CHANNEL, ex.errorCode());
        assertTrue(ex.getMessage().contains("'foo'"), ex.getMessage());
        assertTrue(ex.getMessage().length() < 4200, "truncated to the schema's 4096 bytes");
        assertTrue(!goodClient.isClosed(), "the client handled the longest event");
        assertGoodClientStillWorks();
    }

    @Test
    void shouldRefuseSubscriptionParametersAndBadUdpChannelAndReservedStream()
    {
        RegistrationException ex = assertThrows(RegistrationException.class,
            () -> goodClient.addSubscription("metaroce:ipc?colour=blue", STREAM_ID));
        assertEquals(ControlErrorCode.INVALID_CHANNEL, ex.errorCode());
        assertTrue(ex.getMessage().contains("'colour'") && ex.getMessage().contains("term-length, mtu"),
            ex.getMessage());

        ex = assertThrows(RegistrationException.class,
            () -> goodClient.addPublication("metaroce:udp?endpoint=10.0.1.2:40456,10.0.2.2:40457", STREAM_ID));
        assertEquals(ControlErrorCode.INVALID_CHANNEL, ex.errorCode());
        assertTrue(ex.getMessage().contains("'endpoint'"), ex.getMessage());

        ex = assertThrows(RegistrationException.class, () -> goodClient.addSubscription("metaroce:ipc", 0));
        assertEquals(ControlErrorCode.INVALID_STREAM_ID, ex.errorCode());
        assertGoodClientStillWorks();
        assertTrue(raw.counterValue(SystemCounterDescriptor.ERROR_RESPONSES.label()) >= 3);
    }

    @Test
    void shouldAnswerUnknownRegistrationIds()
    {
        long correlationId = raw.nextCorrelationId();
        final RemovePublicationEncoder removePublication = new RemovePublicationEncoder();
        removePublication.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(goodClient.clientId()).correlationId(correlationId).registrationId(123_456_789L);
        assertAnswered(RemovePublicationEncoder.TEMPLATE_ID,
            MessageHeaderEncoder.ENCODED_LENGTH + removePublication.encodedLength(), correlationId,
            "ERROR UNKNOWN_PUBLICATION: client " + goodClient.clientId() +
            " has no publication with registration id 123456789");

        correlationId = raw.nextCorrelationId();
        final RemoveSubscriptionEncoder removeSubscription = new RemoveSubscriptionEncoder();
        removeSubscription.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(999).correlationId(correlationId).registrationId(goodSubscription.registrationId());
        assertAnswered(RemoveSubscriptionEncoder.TEMPLATE_ID,
            MessageHeaderEncoder.ENCODED_LENGTH + removeSubscription.encodedLength(), correlationId,
            "ERROR UNKNOWN_SUBSCRIPTION: client 999 has no subscription");

        correlationId = raw.nextCorrelationId();
        final RemoveCounterEncoder removeCounter = new RemoveCounterEncoder();
        removeCounter.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(goodClient.clientId()).correlationId(correlationId).registrationId(-1);
        assertAnswered(RemoveCounterEncoder.TEMPLATE_ID,
            MessageHeaderEncoder.ENCODED_LENGTH + removeCounter.encodedLength(), correlationId,
            "ERROR UNKNOWN_COUNTER");
        assertGoodClientStillWorks();
    }

    @Test
    void shouldRefuseClashingSharedPublicationAndSessionLimit()
    {
        final RegistrationException clash = assertThrows(RegistrationException.class,
            () -> goodClient.addPublication("metaroce:ipc?term-length=128k", STREAM_ID));
        assertEquals(ControlErrorCode.CLASH, clash.errorCode());
        assertTrue(clash.getMessage().contains("term-length"), clash.getMessage());

        goodClient.addExclusivePublication("metaroce:ipc", STREAM_ID);
        final RegistrationException limit = assertThrows(RegistrationException.class,
            () -> goodClient.addExclusivePublication("metaroce:ipc", STREAM_ID));
        assertEquals(ControlErrorCode.LIMIT_EXCEEDED, limit.errorCode());
        assertTrue(limit.getMessage().contains(Configuration.STREAM_SESSION_LIMIT_PROP_NAME), limit.getMessage());
        assertGoodClientStillWorks();
    }

    @Test
    void shouldRefuseOversizedCounterKeyAndLabelAndFullCountersFile()
    {
        final RegistrationException label = assertThrows(RegistrationException.class,
            () -> goodClient.addCounter(1001, "x".repeat(400)));
        assertEquals(ControlErrorCode.LIMIT_EXCEEDED, label.errorCode());

        final UnsafeBuffer key = new UnsafeBuffer(new byte[200]);
        final RegistrationException keyEx = assertThrows(RegistrationException.class,
            () -> goodClient.addCounter(1001, key, 0, 200, key, 0, 1));
        assertEquals(ControlErrorCode.LIMIT_EXCEEDED, keyEx.errorCode());

        final RegistrationException full = assertThrows(RegistrationException.class, () ->
        {
            for (int i = 0; i < 10_000; i++)
            {
                goodClient.addCounter(1001, "filler " + i);
            }
        });
        assertEquals(ControlErrorCode.LIMIT_EXCEEDED, full.errorCode());
    }

    private int encodeAddPublication(final long correlationId, final String channel)
    {
        final AddPublicationEncoder encoder = new AddPublicationEncoder();
        encoder.wrapAndApplyHeader(buffer, 0, headerEncoder)
            .clientId(raw.nextCorrelationId())
            .correlationId(correlationId)
            .streamId(STREAM_ID + 7)
            .reserved1(0)
            .channel(channel);
        return MessageHeaderEncoder.ENCODED_LENGTH + encoder.encodedLength();
    }

    private int randomRecord(final SplittableRandom random)
    {
        final int kind = random.nextInt(3);
        if (0 == kind)
        {
            final int length = random.nextInt(64);
            for (int i = 0; i < length; i++)
            {
                buffer.putByte(i, (byte)random.nextInt());
            }
            return length;
        }

        final int length = encodeAddPublication(-random.nextInt(1000) - 1, "metaroce:ipc?mtu=" + random.nextInt());
        final int flips = 1 + random.nextInt(3);
        for (int i = 0; i < flips; i++)
        {
            buffer.putByte(random.nextInt(length), (byte)random.nextInt());
        }
        return 1 == kind ? length : random.nextInt(length + 1);
    }

    private void assertAnswered(final int msgTypeId, final int length, final long correlationId, final String prefix)
    {
        assertTrue(raw.write(msgTypeId, buffer, 0, length));
        final String answer = raw.awaitAnswer(correlationId, ANSWER_TIMEOUT_MS);
        assertNotNull(answer, "no answer to " + correlationId);
        assertTrue(answer.startsWith(prefix), answer);
    }

    private long malformedTotal()
    {
        return raw.counterValue(SystemCounterDescriptor.MALFORMED_COMMANDS.label());
    }

    private void awaitCounter(final String label, final long expected)
    {
        awaitValue(() -> raw.counterValue(label), expected);
    }

    private static void awaitValue(final java.util.function.LongSupplier value, final long expected)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (value.getAsLong() != expected && System.nanoTime() < deadlineNs)
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        assertEquals(expected, value.getAsLong());
    }

    private void assertGoodClientStillWorks()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
        {
            while (!goodPublication.isConnected())
            {
                Thread.sleep(1);
            }

            final UnsafeBuffer message = new UnsafeBuffer(new byte[8]);
            final long value = System.nanoTime();
            message.putLong(0, value);
            while (goodPublication.offer(message) < 0)
            {
                Thread.sleep(1);
            }

            final long[] received = { 0 };
            while (0 == received[0])
            {
                if (0 == goodSubscription.poll((b, offset, length, header) -> received[0] = b.getLong(offset), 1))
                {
                    Thread.sleep(1);
                }
            }
            assertEquals(value, received[0]);
        });
    }
}
