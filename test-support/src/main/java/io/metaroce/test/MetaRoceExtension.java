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
package io.metaroce.test;

import io.metaroce.client.MetaRoce;
import io.metaroce.driver.MediaDriver;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.io.PrintStream;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A JUnit 5 extension that gives every test an {@link EmbeddedDriver} of its own: started before each test in a fresh
 * directory, its client and the driver handed to test methods that take a {@link MetaRoce} or an
 * {@link EmbeddedDriver} parameter, the driver's error log printed when the test fails, and everything the test
 * support created removed after the test, whatever its outcome.
 * <pre>
 * &#64;ExtendWith(MetaRoceExtension.class)
 * class MyTest
 * {
 *     &#64;Test
 *     void shouldEcho(final MetaRoce client) { ... }
 * }
 *
 * class MyTunedTest
 * {
 *     &#64;RegisterExtension
 *     final MetaRoceExtension metaroce = new MetaRoceExtension()
 *         .driverSettings((ctx) -&gt; ctx.ipcTermLength(1024 * 1024));
 * }
 * </pre>
 * Tests of one class that run in parallel each get their own driver; {@link #driver()} is then ambiguous, so such
 * tests take the driver as a parameter.
 */
public final class MetaRoceExtension implements BeforeEachCallback, AfterEachCallback, ParameterResolver
{
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(
        MetaRoceExtension.class);

    private Consumer<MediaDriver.Context> driverSettings = (ctx) -> {};
    private Consumer<MetaRoce.Context> clientSettings = (ctx) -> {};
    private PrintStream errorLogOut = System.err;
    private volatile EmbeddedDriver current;

    /**
     * An extension with the test defaults of {@link EmbeddedDriver}.
     */
    public MetaRoceExtension()
    {
    }

    /**
     * Change the driver's settings from the test defaults before each start.
     *
     * @param driverSettings applied to the driver's context.
     * @return this for a fluent API.
     */
    public MetaRoceExtension driverSettings(final Consumer<MediaDriver.Context> driverSettings)
    {
        this.driverSettings = Objects.requireNonNull(driverSettings);
        return this;
    }

    /**
     * Change the settings of every client handed out.
     *
     * @param clientSettings applied to each client's context.
     * @return this for a fluent API.
     */
    public MetaRoceExtension clientSettings(final Consumer<MetaRoce.Context> clientSettings)
    {
        this.clientSettings = Objects.requireNonNull(clientSettings);
        return this;
    }

    /**
     * Where the driver's error log goes when a test fails.
     *
     * @param errorLogOut the stream, standard error by default.
     * @return this for a fluent API.
     */
    public MetaRoceExtension errorLogOut(final PrintStream errorLogOut)
    {
        this.errorLogOut = Objects.requireNonNull(errorLogOut);
        return this;
    }

    /**
     * The driver of the test that is running.
     *
     * @return the driver, or null outside a test.
     */
    public EmbeddedDriver driver()
    {
        return current;
    }

    /**
     * The client of the test that is running.
     *
     * @return the client connected to {@link #driver()}.
     * @throws IllegalStateException outside a test.
     */
    public MetaRoce client()
    {
        final EmbeddedDriver driver = current;
        if (null == driver)
        {
            throw new IllegalStateException("no driver outside a test: the extension starts one before each test");
        }
        return driver.client();
    }

    /**
     * {@inheritDoc}
     */
    public void beforeEach(final ExtensionContext context)
    {
        final EmbeddedDriver driver = EmbeddedDriver.launch(driverSettings, clientSettings);
        context.getStore(NAMESPACE).put(EmbeddedDriver.class, driver);
        current = driver;
    }

    /**
     * {@inheritDoc}
     */
    public void afterEach(final ExtensionContext context)
    {
        final EmbeddedDriver driver = context.getStore(NAMESPACE).remove(EmbeddedDriver.class, EmbeddedDriver.class);
        if (null == driver)
        {
            return;
        }
        try
        {
            if (context.getExecutionException().isPresent())
            {
                errorLogOut.println("metaroce: the error log of the driver in " + driver.directoryName() + " of " +
                    context.getDisplayName() + ", which failed:");
                if (0 == driver.printErrorLog(errorLogOut))
                {
                    errorLogOut.println("(empty)");
                }
            }
        }
        finally
        {
            current = null;
            driver.close();
        }
    }

    /**
     * {@inheritDoc}
     */
    public boolean supportsParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext)
    {
        final Class<?> type = parameterContext.getParameter().getType();
        return MetaRoce.class == type || EmbeddedDriver.class == type;
    }

    /**
     * {@inheritDoc}
     */
    public Object resolveParameter(final ParameterContext parameterContext, final ExtensionContext extensionContext)
    {
        final EmbeddedDriver driver = extensionContext.getStore(NAMESPACE).get(EmbeddedDriver.class,
            EmbeddedDriver.class);
        if (null == driver)
        {
            throw new ParameterResolutionException(parameterContext.getParameter().getType().getSimpleName() +
                " is handed to test methods only: the extension starts a driver before each test");
        }
        return MetaRoce.class == parameterContext.getParameter().getType() ? driver.client() : driver;
    }
}
