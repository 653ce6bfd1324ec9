//! The etcd service as the first stage's build has it: none. The first stage draws the default
//! scenario (a single Redis) and the reader's drags of it, and its `validate` refuses
//! `lock.etcd`, so no etcd scenario reaches its engine; the type has no value, every method is
//! an empty match, and the etcd engine's code stays out of the first download.

use super::queue::{Item, Queue};
use super::world::World;
use crate::sim::scenario::{Etcd, Scenario};
use crate::sim::trace::EtcdTrace;

pub enum EtcdService {}

impl EtcdService {
    pub fn new(_: &Scenario, _: &Etcd, _: u64) -> Option<EtcdService> {
        None
    }
    pub fn schedule(&self, _: &mut Queue) {
        match *self {}
    }
    pub fn is_waiting(&self, _: usize) -> bool {
        match *self {}
    }
    pub fn block(&mut self, _: usize, _: Item) {
        match *self {}
    }
    pub fn holds(&self, _: usize) -> bool {
        match *self {}
    }
    pub fn key_live(&self, _: u64) -> bool {
        match *self {}
    }
    pub fn committed(&mut self, _: u64, _: usize) {
        match *self {}
    }
    pub fn acquire(&mut self, _: &mut World, _: u64, _: u64, _: usize, _: usize) {
        match *self {}
    }
    pub fn release(&mut self, _: &mut World, _: u64, _: u64, _: usize, _: usize) {
        match *self {}
    }
    pub fn keepalive(&mut self, _: &mut World, _: u64, _: usize, _: Option<usize>) -> bool {
        match *self {}
    }
    pub fn next_keepalive(&self, _: &mut World, _: u64, _: usize) {
        match *self {}
    }
    pub fn crashed(&mut self, _: &mut World, _: u64, _: usize) {
        match *self {}
    }
    pub fn expire(&mut self, _: &mut World, _: u64, _: usize, _: u64) {
        match *self {}
    }
    pub fn elected(&mut self, _: &mut World, _: u64) {
        match *self {}
    }
    pub fn finish(self, _: u64) -> EtcdTrace {
        match self {}
    }
}
