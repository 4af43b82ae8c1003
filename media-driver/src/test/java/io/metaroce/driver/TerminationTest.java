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

import io.metaroce.client.MetaRoce;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.codec.control.ControlErrorCode;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TerminationTest
{
    private MediaDriver driver;
    private MetaRoce client;

    @AfterEach
    void tearDown()
    {
        if (null != client)
        {
            client.close();
        }
        if (null != driver)
        {
            driver.close();
        }
    }

    @Test
    void shouldRefuseTerminationWhenNoTokenIsConfigured()
    {
        final CountDownLatch terminated = new CountDownLatch(1);
        driver = MediaDriver.launch(TestContexts.driverContext().terminationToken(null)
            .terminationHook(terminated::countDown));
        client = MetaRoce.connect(TestContexts.clientContext(driver));

        final RegistrationException ex = assertThrows(RegistrationException.class, () -> terminate("anything"));
        assertEquals(ControlErrorCode.NOT_SUPPORTED, ex.errorCode());
        assertTrue(ex.getMessage().startsWith("NOT_SUPPORTED: termination refused ("), ex.getMessage());
        assertEquals(1, terminated.getCount());
    }

    @Test
    void shouldRefuseWrongTokenAndAcceptMatchingOne() throws InterruptedException
    {
        final CountDownLatch terminated = new CountDownLatch(1);
        driver = MediaDriver.launch(TestContexts.driverContext().terminationToken("s3cret")
            .terminationHook(terminated::countDown));
        client = MetaRoce.connect(TestContexts.clientContext(driver));

        final RegistrationException ex = assertThrows(RegistrationException.class, () -> terminate("s3cre"));
        assertEquals(ControlErrorCode.NOT_SUPPORTED, ex.errorCode());
        assertTrue(ex.getMessage().startsWith("NOT_SUPPORTED: termination refused ("), "reason not told: " + ex);
        assertEquals(1, terminated.getCount());

        terminate("s3cret");
        assertTrue(terminated.await(10, TimeUnit.SECONDS));
    }

    private void terminate(final String token)
    {
        final byte[] bytes = token.getBytes(StandardCharsets.UTF_8);
        client.requestDriverTermination(new UnsafeBuffer(bytes), 0, bytes.length);
    }
}
