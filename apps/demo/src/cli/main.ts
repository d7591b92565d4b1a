#!/usr/bin/env node
// reflect-metadata first: the kernel's DI (tsyringe) needs it before any module imports it.
import 'reflect-metadata';
import { defaultContext } from './context.js';
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2), defaultContext());
