"""Fakes that ship with the product: a scripted loopback LLM server for every wire protocol."""
